// The folders of lib/ as layers, bottom first, and the lint rule that keeps them so: a file may import from its own
// folder and from the folders of lower layers, never from a folder of its own layer or of a higher one. So no two
// folders import each other, directly or round a circle, and a reader knows from this list what a folder may touch.
// A folder or file of lib/ that is not listed is an error too: a new one is placed here when it is created.
// docs/architecture.md ("Layers") says what each layer is for.
import fs from 'node:fs';
import path from 'node:path';

/** Bottom first. Names are lib/'s top-level folders; files directly in lib/ keep their `.ts`. */
export const LIB_LAYERS = [
  ['interfaces'], // public types, no code
  ['sqlite-queue.constants.ts', 'table-names.constants.ts', 'module-defaults.constants.ts', 'errors'], // Nest tokens, table names, defaults; typed errors and what a driver's error code means
  ['utils'], // pure helpers: validation, serialisation, backoff, timers; no storage, no state of the queue
  ['storage'], // all SQL: the role interfaces, sqlite/, postgres/, shared/; schema and migrations
  ['decorators', 'events', 'housekeeping', 'metrics', 'scheduler', 'telemetry', 'views'], // parts built on the storage; telemetry: OpenTelemetry spans (optional peer); views: stored records as the public types show them (JobInfo), for admin and producer alike
  ['worker'], // runs an attempt, writes its outcome
  ['poller'], // claims jobs for the workers, keeps their leases
  ['runtime'], // builds and owns the storage and the processing runtime (QueueRuntime)
  ['admin', 'discovery', 'health', 'queue-events'], // public services and Nest discovery, over the runtime
  ['producer'], // QueueProducer (shows added jobs as admin does)
  ['queue', 'dashboard'], // registered queue handles; the optional dashboard
  ['sqlite-queue.module.ts', 'dashboard.ts', 'terminus.ts', 'cli'], // the module's wiring; the optional entry points; the command line
  ['index.ts'], // the main entry point
];

const rank = new Map(LIB_LAYERS.flatMap((names, index) => names.map((name) => [name, index])));

/** The top-level folder (or `.ts` file) of lib/ a path is in, or null outside lib/. */
function unitOf(file, libDir) {
  const relative = path.relative(libDir, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return null;
  const [first, ...rest] = relative.split(path.sep);
  if (rest.length > 0 || fs.existsSync(path.join(libDir, first, 'index.ts'))) return first;
  return first.endsWith('.ts') ? first : `${first}.ts`;
}

/** `layers/lib-layers`: imports inside lib/ follow LIB_LAYERS. */
const libLayersRule = {
  meta: {
    type: 'problem',
    docs: { description: "lib/'s folders import only their own layer's folder and lower layers (eslint/lib-layers.mjs)" },
    schema: [],
    messages: {
      upward:
        'lib/{{from}} (layer {{fromRank}}) may not import lib/{{to}} (layer {{toRank}}): see LIB_LAYERS in eslint/lib-layers.mjs and docs/architecture.md#layers',
      unknown: 'lib/{{name}} is in no layer: add it to LIB_LAYERS in eslint/lib-layers.mjs',
    },
  },
  create(context) {
    const file = context.filename;
    const libDir = path.join(context.cwd, 'lib');
    const from = unitOf(file, libDir);
    if (from === null) return {};
    function check(node) {
      const source = node && node.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = unitOf(path.resolve(path.dirname(file), source), libDir);
      if (to === null || to === from) return;
      for (const name of [from, to]) {
        if (!rank.has(name)) return context.report({ node, messageId: 'unknown', data: { name } });
      }
      if (rank.get(to) >= rank.get(from)) {
        context.report({ node, messageId: 'upward', data: { from, to, fromRank: rank.get(from), toRank: rank.get(to) } });
      }
    }
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

/** The local plugin that holds the rule. */
export const layersPlugin = { rules: { 'lib-layers': libLayersRule } };
