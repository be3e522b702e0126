import { getAuth } from "@stepwiser/api";

export const dynamic = "force-dynamic";

// Resolved per request, not at import: the build runs without a database or secret.
const handler = (request: Request) => getAuth().handler(request);
export { handler as GET, handler as POST };
