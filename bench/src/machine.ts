import { readFileSync } from "node:fs";
import { cpus, freemem, loadavg, totalmem } from "node:os";

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  freeMemoryGiB: number;
  node: string;
  loadAverage: [number, number, number];
  platform: string;
  startedAt: string;
}

/** The machine as /proc/cpuinfo and Node see it, with the load average when the run starts. */
export function describeMachine(): MachineInfo {
  let cpuModel = cpus()[0]?.model ?? "unknown";
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (match?.[1]) cpuModel = match[1].trim();
  } catch {
    // not Linux: keep Node's name
  }
  const [one, five, fifteen] = loadavg() as [number, number, number];
  return {
    cpuModel,
    cores: cpus().length,
    memoryGiB: totalmem() / 1024 ** 3,
    freeMemoryGiB: freemem() / 1024 ** 3,
    node: process.version,
    loadAverage: [one, five, fifteen],
    platform: `${process.platform} ${process.arch}`,
    startedAt: new Date().toISOString(),
  };
}
