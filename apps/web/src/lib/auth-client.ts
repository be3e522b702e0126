"use client";

import { createAuthClient } from "better-auth/react";

/** Talks to /api/auth on the same origin the page was served from. */
export const authClient = createAuthClient();
