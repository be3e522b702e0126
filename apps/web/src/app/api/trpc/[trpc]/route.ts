import { handleTrpcRequest } from "@stepwiser/api";
import { serverDeps } from "~/server/deps";

export const dynamic = "force-dynamic";

const handler = (request: Request) => handleTrpcRequest(request, serverDeps());
export { handler as GET, handler as POST };
