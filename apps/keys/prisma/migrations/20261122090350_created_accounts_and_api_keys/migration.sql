-- CreateEnum
CREATE TYPE "api_key_type" AS ENUM ('INFERENCE', 'ADMIN');

-- CreateEnum
CREATE TYPE "limit_period" AS ENUM ('EPOCH', 'MONTH', 'LIFETIME');

-- CreateEnum
CREATE TYPE "model_privacy" AS ENUM ('ALL', 'PRIVATE_TEXT', 'PRIVATE_ONLY');

-- CreateTable
CREATE TABLE "accounts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" VARCHAR(128) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "account_id" UUID NOT NULL,
    "type" "api_key_type" NOT NULL,
    "description" VARCHAR(64) NOT NULL,
    "secret_hash" CHAR(64) NOT NULL,
    "last6" VARCHAR(6) NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "limit_usd" DECIMAL(20,8),
    "limit_diem" DECIMAL(20,8),
    "limit_period" "limit_period" NOT NULL DEFAULT 'EPOCH',
    "model_privacy" "model_privacy" NOT NULL DEFAULT 'ALL',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_secret_hash_key" ON "api_keys"("secret_hash");

-- CreateIndex
CREATE INDEX "api_keys_account_id_deleted_at_idx" ON "api_keys"("account_id", "deleted_at");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
