-- CreateEnum
CREATE TYPE "api_tier" AS ENUM ('PAID', 'PARTNER');

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "api_tier" "api_tier" NOT NULL DEFAULT 'PAID';

-- CreateTable
CREATE TABLE "account_rate_limits" (
    "account_id" UUID NOT NULL,
    "target" VARCHAR(200) NOT NULL,
    "rpm" INTEGER,
    "tpm" INTEGER,
    "rpd" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "account_rate_limits_pkey" PRIMARY KEY ("account_id","target")
);

-- CreateTable
CREATE TABLE "api_key_rate_limits" (
    "api_key_id" UUID NOT NULL,
    "target" VARCHAR(200) NOT NULL,
    "rpm" INTEGER,
    "tpm" INTEGER,
    "rpd" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_key_rate_limits_pkey" PRIMARY KEY ("api_key_id","target")
);

-- AddForeignKey
ALTER TABLE "account_rate_limits" ADD CONSTRAINT "account_rate_limits_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_key_rate_limits" ADD CONSTRAINT "api_key_rate_limits_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
