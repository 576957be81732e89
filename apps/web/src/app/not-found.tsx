import Link from "next/link";

export default function NotFound() {
  return (
    <main className="signin">
      <h1>Page not found</h1>
      <p>This page does not exist, or you do not have access to it.</p>
      <p>
        <Link href="/">Back to your pages</Link>
      </p>
    </main>
  );
}
