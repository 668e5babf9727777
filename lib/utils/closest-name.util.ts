/**
 * The known name closest to a misspelt one (`pollIntervall` → `pollInterval`), or null when none is close
 * enough to be a likely typo. Only runs on the error path.
 */
export function closestName(given: string, known: Iterable<string>): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const name of known) {
    const distance = editDistance(given.toLowerCase(), name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  // A third of the name may differ: enough for a typo or a wrong case, not for an unrelated word.
  return best !== null && bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : null;
}

/**
 * ` (did you mean "<name>"?)` for an unknown key close to a known one (or named by `aliases`, another library's word
 * for it), else '': the tail of every "unknown option" message.
 */
export function didYouMean(given: string, known: Iterable<string>, aliases?: ReadonlyMap<string, string>): string {
  const suggestion = aliases?.get(given) ?? closestName(given, known);
  return suggestion === null ? '' : ` (did you mean "${suggestion}"?)`;
}

/**
 * Edit distance with adjacent transpositions (optimal string alignment): insertions, deletions, substitutions and a
 * swap of two neighbours each cost 1, so the commonest typo (`nmae`, `serach`) is one edit, not two.
 */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) current[j] = Math.min(current[j], before[j - 2] + 1);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length];
}
