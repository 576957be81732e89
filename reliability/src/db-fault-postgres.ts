import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

/**
 * A PostgreSQL server of the test's own, in a temporary directory, on a free port: the
 * database-fault suite stops and restarts it, which it must never do to the shared server
 * other suites use at the same time.
 *
 * The binaries come from `MNOTE_TEST_PG_BIN` or the newest `/usr/lib/postgresql/<version>/bin`
 * (Debian's layout). initdb refuses to run as root, so as root every server command runs as
 * the `postgres` OS user through runuser.
 */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  port: number;
  /** `pg_ctl stop -m fast`: every session is terminated, the server shuts down cleanly. */
  stop(): Promise<void>;
  /** `pg_ctl stop -m immediate`: the server quits without a shutdown checkpoint, as in a crash; start() recovers from the WAL. */
  crash(): Promise<void>;
  start(): Promise<void>;
  /** Stop if running, delete the directory. */
  destroy(): Promise<void>;
}

/** Where initdb and pg_ctl are, or why there are none. */
export function findPostgresBinaries(env: NodeJS.ProcessEnv = process.env): { bin: string } | { missing: string } {
  const candidates: string[] = [];
  if (env.MNOTE_TEST_PG_BIN) candidates.push(env.MNOTE_TEST_PG_BIN);
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => join(debian, version, "bin")));
  }
  const bin = candidates.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")));
  if (bin && userInfo().uid === 0 && !postgresUserIds()) {
    return {
      missing: `running as root, and there is no "postgres" OS user to run ${join(bin, "initdb")} as (initdb refuses root)`,
    };
  }
  if (bin) return { bin };
  return {
    missing: `no PostgreSQL server binaries (initdb, pg_ctl) in ${candidates.length ? candidates.join(", ") : `${debian}/<version>/bin`}; set MNOTE_TEST_PG_BIN or install postgresql`,
  };
}

function postgresUserIds(): { uid: number; gid: number } | null {
  try {
    const id = (flag: string) =>
      Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    return null;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const execFileAsync = promisify(execFile);

export async function startPrivatePostgres(bin: string): Promise<PrivatePostgres> {
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), "mnote-db-fault-"));
  const data = join(dir, "data");
  const logFile = join(dir, "server.log");
  if (asRoot) {
    const owner = postgresUserIds()!;
    chownSync(dir, owner.uid, owner.gid);
    chmodSync(dir, 0o700);
  }
  // Asynchronous, so the test's own writers keep running while the server stops and starts.
  const run = async (tool: string, args: string[]) => {
    const [command, argv] = asRoot
      ? ["runuser", ["-u", "postgres", "--", join(bin, tool), ...args]]
      : [join(bin, tool), args];
    await execFileAsync(command, argv, { encoding: "utf8", timeout: 120_000 });
  };

  const port = await freePort();
  const start = () => run("pg_ctl", ["-D", data, "-l", logFile, "-w", "-t", "120", "start"]);
  const stop = () => run("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "120", "stop"]);
  const crash = () => run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "120", "stop"]);
  const running = () => existsSync(join(data, "postmaster.pid"));
  try {
    await run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale", "C"]);
    // Loopback only, its own socket directory, and no fsync: the suite checks what a server that
    // stops and starts keeps, not what survives the machine losing power.
    writeFileSync(
      join(data, "postgresql.auto.conf"),
      [
        `port = ${port}`,
        `listen_addresses = '127.0.0.1'`,
        `unix_socket_directories = '${dir}'`,
        `fsync = off`,
        `max_connections = 40`,
        `shared_buffers = 16MB`,
        "",
      ].join("\n"),
    );
    await start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    crash,
    async destroy() {
      try {
        if (running()) await stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
