-- Characters and reviews belong to the account that wrote them (docs/chat.md, "Who may write").
-- Existing rows get NULL: characters become the operator's (managed with the characters CLI),
-- reviews have no author account and no account can delete them.

-- AlterTable
ALTER TABLE "characters" ADD COLUMN "owner_account_id" UUID;

-- AlterTable
ALTER TABLE "character_reviews" ADD COLUMN "account_id" UUID;
