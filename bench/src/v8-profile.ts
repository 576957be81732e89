/**
 * Reading V8's CPU profile (`Profiler.stop`'s `profile`, or a `--cpu-prof` file), the one way the profile-*.ts
 * scripts and the SDK-share section count it: which frames the samples fell in (self) and which frames were on their
 * stacks (inclusive, each frame once a sample however deep it recurses).
 */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  startTime: number;
  endTime: number;
}

const REPO_ROOT = new URL("../../", import.meta.url).href;

/** A frame as the scripts print it: function, file inside its package (or the repository), line. */
export function frameName(node: ProfileNode): string {
  const url = node.callFrame.url.replace(/.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, "").replace(REPO_ROOT, "");
  return `${node.callFrame.functionName || "(anon)"} ${url}:${node.callFrame.lineNumber}`;
}

const IDLE = "(idle) :-1";

/** The profile's samples counted by frame, with the stack of any sample by its leaf node's id. */
export function countProfile(profile: Profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  /** The frames on a sample's stack, leaf first. */
  const stack = (id: number) => {
    const names: string[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) names.push(frameName(byId.get(at)!));
    return names;
  };
  const hits = new Map<number, number>();
  for (const id of profile.samples ?? []) hits.set(id, (hits.get(id) ?? 0) + 1);
  const samples = profile.samples?.length ?? 0;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, count] of hits) {
    const frames = stack(id);
    self.set(frames[0]!, (self.get(frames[0]!) ?? 0) + count);
    for (const frame of new Set(frames)) inclusive.set(frame, (inclusive.get(frame) ?? 0) + count);
  }
  return {
    self,
    inclusive,
    stack,
    /** Samples in which the process was not idle. */
    busy: samples - (self.get(IDLE) ?? 0),
    sampleUs: (profile.endTime - profile.startTime) / Math.max(1, samples),
  };
}

/** Prints the `rows` heaviest frames of `counts`, each as `us(count)` and its share of the busy samples. */
export function printRanked(
  counts: Map<string, number>,
  { us, busy, rows }: { us: (count: number) => string; busy: number; rows: number },
) {
  const ranked = [...counts].filter(([key]) => key !== IDLE && key !== "(root) :-1");
  for (const [key, count] of ranked.sort((a, b) => b[1] - a[1]).slice(0, rows))
    console.log(`${us(count)} µs ${((count / Math.max(1, busy)) * 100).toFixed(1).padStart(5)}%  ${key}`);
}
