import type { Prisma } from "@stepwiser/db";

/**
 * Ratings that come with a file were not given by anyone signed in here: they
 * are authored by one account that cannot sign in (it has no credentials), and
 * each keeps the source's labeller id in HumanLabel.externalAuthor.
 */
export const IMPORTED_LABELS_AUTHOR = {
  id: "imported-labels",
  email: "imported-labels@stepwiser.invalid",
  name: "Imported labels",
} as const;

export async function importedLabelsAuthor(tx: Prisma.TransactionClient): Promise<string> {
  await tx.user.upsert({
    where: { id: IMPORTED_LABELS_AUTHOR.id },
    create: { ...IMPORTED_LABELS_AUTHOR, role: "viewer", emailVerified: false },
    update: {},
  });
  return IMPORTED_LABELS_AUTHOR.id;
}
