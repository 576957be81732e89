"use client";

export function SignOutButton() {
  return (
    <button
      type="button"
      className="link"
      onClick={async () => {
        await fetch("/api/session", { method: "DELETE" });
        window.location.href = "/signin";
      }}
    >
      Sign out
    </button>
  );
}
