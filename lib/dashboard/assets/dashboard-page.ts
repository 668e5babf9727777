/** Escapes text for an HTML attribute or text node. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * The page shell: no data in it (the script fetches everything and writes it as text nodes), so escaping has one
 * place to go wrong, here, and the only variable is the base path the page was reached at. Its icon is empty and
 * inline, so the browser does not ask the app for /favicon.ico, which most apps answer 404: an error in the console.
 */
export function dashboardPage(basePath: string, assets: { script: string; style: string }): string {
  const base = escapeHtml(basePath);
  return `<!doctype html>
<html lang="en" data-base="${base}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>Queues</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${base}/assets/${escapeHtml(assets.style)}">
<script src="${base}/assets/${escapeHtml(assets.script)}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<nav aria-label="Dashboard">
<a class="brand" href="#/">Queues</a>
<a href="#/schedules">Schedules</a>
<a href="#/processes">Processes</a>
</nav>
<p class="live" id="live" aria-live="off">Loading…</p>
</header>
<div id="action-status" role="status" aria-live="polite" class="status-line"></div>
<main id="main" tabindex="-1"><noscript>The dashboard needs JavaScript.</noscript></main>
</body>
</html>
`;
}
