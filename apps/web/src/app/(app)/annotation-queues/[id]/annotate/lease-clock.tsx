"use client";

import { useEffect, useState } from "react";

/** Time left on the lease; past it, the item may go to someone else. */
export function LeaseClock({ expiresAt }: { expiresAt: Date }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const seconds = Math.round((new Date(expiresAt).getTime() - now) / 1000);
  if (seconds <= 0) return <span className="text-amber-700">lease expired: submit soon, the item may be handed to someone else</span>;
  const minutes = Math.floor(seconds / 60);
  return (
    <span title={`Your hold on this item ends at ${new Date(expiresAt).toLocaleTimeString()}`}>
      lease {minutes}:{String(seconds % 60).padStart(2, "0")}
    </span>
  );
}
