import { crossSiteRefusal, getAuth, handleAuthRequest, trustedOriginsOf } from "@stepwiser/api";
import { getDb } from "@stepwiser/db";

export const dynamic = "force-dynamic";

// Resolved per request, not at import: the build runs without a database or secret.
const handler = (request: Request) => {
  const auth = getAuth();
  // better-auth checks origins only on some of its writes (sign-out is not among them).
  const refusal = crossSiteRefusal(request, trustedOriginsOf(auth));
  if (refusal) return Response.json({ code: "CROSS_SITE_REQUEST", message: refusal }, { status: 403 });
  return handleAuthRequest(request, { auth, db: getDb() });
};
export { handler as GET, handler as POST };
