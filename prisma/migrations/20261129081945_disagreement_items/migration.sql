-- CreateTable
CREATE TABLE "DisagreementItem" (
    "runIds" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "trajectoryId" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "subset" TEXT NOT NULL,
    "label" INTEGER NOT NULL,
    "a" INTEGER NOT NULL,
    "b" INTEGER NOT NULL,

    CONSTRAINT "DisagreementItem_pkey" PRIMARY KEY ("runIds","position")
);

-- AddForeignKey
ALTER TABLE "DisagreementItem" ADD CONSTRAINT "DisagreementItem_runIds_fkey" FOREIGN KEY ("runIds") REFERENCES "DisagreementList"("runIds") ON DELETE CASCADE ON UPDATE CASCADE;

-- Lists stored before their items were rows hold their items in `list`, where they would never be read again.
DELETE FROM "DisagreementList";
