import type { ServiceContext } from "../args";

/** Every account, oldest first, with its role, whether it is disabled, and its live sessions and API tokens. */
export async function listUsers({ db }: ServiceContext, now = new Date()) {
  const rows = await db.user.findMany({
    orderBy: { createdAt: "asc" },
    select: {
      id: true,
      email: true,
      name: true,
      role: true,
      createdAt: true,
      disabledAt: true,
      _count: { select: { sessions: { where: { expiresAt: { gt: now } } }, apiTokens: { where: { revokedAt: null, expiresAt: { gt: now } } } } },
    },
  });
  return rows.map(({ _count, ...row }) => ({ ...row, activeSessions: _count.sessions, activeApiTokens: _count.apiTokens }));
}
