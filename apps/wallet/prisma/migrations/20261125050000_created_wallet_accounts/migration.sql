-- CreateEnum
CREATE TYPE "wallet_network" AS ENUM ('evm', 'solana');

-- CreateTable
CREATE TABLE "wallet_accounts" (
    "network" "wallet_network" NOT NULL,
    "address" VARCHAR(64) NOT NULL,
    "account_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "wallet_accounts_pkey" PRIMARY KEY ("network","address")
);

-- CreateTable
CREATE TABLE "used_nonces" (
    "scope" VARCHAR(16) NOT NULL,
    "address" VARCHAR(64) NOT NULL,
    "nonce" VARCHAR(128) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "used_nonces_pkey" PRIMARY KEY ("scope","address","nonce")
);

-- CreateTable
CREATE TABLE "wallet_secrets" (
    "name" VARCHAR(64) NOT NULL,
    "value" BYTEA NOT NULL,

    CONSTRAINT "wallet_secrets_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "wallet_accounts_account_id_key" ON "wallet_accounts"("account_id");

-- CreateIndex
CREATE INDEX "used_nonces_expires_at_idx" ON "used_nonces"("expires_at");
