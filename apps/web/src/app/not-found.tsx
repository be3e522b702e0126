import Link from "next/link";

export default function NotFound() {
  return (
    <main className="mx-auto max-w-xl p-10">
      <h1 className="text-xl font-semibold">Not found</h1>
      <p className="mt-2 text-slate-600">There is nothing at this address.</p>
      <Link href="/datasets" className="mt-4 inline-block text-blue-700 underline">
        Back to datasets
      </Link>
    </main>
  );
}
