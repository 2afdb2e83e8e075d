/**
 * The inspector page shell. Scripts come from `/assets/*.js` (the modules in `./page/`), so the page
 * works without internet: no CDN, no fonts, no framework.
 */
export const inspectorPageHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agentchart inspector</title>
<link rel="icon" href="data:,">
<style>
  :root { font: 13px/1.4 system-ui, sans-serif; color: #1d2433; background: #f5f6f8; }
  body { margin: 0; display: grid; grid-template-rows: auto 1fr; height: 100vh; }
  header { display: flex; gap: 12px; align-items: center; padding: 8px 14px; background: #1d2433; color: #fff; }
  header h1 { font-size: 15px; margin: 0; font-weight: 600; }
  header select { font: inherit; }
  #connection[data-state="open"] { color: #7ee2a8; }
  #connection[data-state="closed"] { color: #ff9b9b; }
  main { display: grid; grid-template-columns: 340px minmax(0, 1fr) 420px;
    grid-template-rows: minmax(0, 3fr) minmax(0, 2fr); gap: 10px; padding: 10px; min-height: 0; }
  section { background: #fff; border: 1px solid #d8dce3; border-radius: 6px; overflow: auto; min-height: 0; }
  section h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .05em; color: #5b6475; margin: 0;
    padding: 6px 10px; border-bottom: 1px solid #eceef2; position: sticky; top: 0; background: #fff; z-index: 1;
    display: flex; gap: 8px; align-items: center; }
  section h2 .tools { margin-left: auto; display: flex; gap: 4px; align-items: center; text-transform: none;
    letter-spacing: normal; font-weight: normal; }
  section h2 button { font: inherit; font-size: 12px; padding: 1px 8px; border-radius: 4px; cursor: pointer;
    background: #fff; color: #1d2433; border: 1px solid #c9ced8; }
  #diagram-panel { grid-column: 1 / -1; grid-row: 1; display: flex; flex-direction: column; overflow: hidden; }
  #actors-panel { grid-column: 1; grid-row: 2; }
  #events-panel { grid-column: 2; grid-row: 2; }
  #context-panel { grid-column: 3; grid-row: 2; }
  #diagram { flex: 1; min-height: 0; position: relative; overflow: hidden; cursor: grab; touch-action: none; }
  #diagram[data-dragging="true"] { cursor: grabbing; }
  #diagram svg { position: absolute; inset: 0; width: 100%; height: 100%; user-select: none; }
  .state rect { fill: #fff; stroke: #8a93a6; stroke-width: 1.2; }
  .state.compound > rect, .state.parallel > rect { fill: #fafbfc; }
  .state.final > rect { stroke-width: 3; stroke: #5b6475; }
  .state.region > rect { stroke-dasharray: 5 3; }
  .state text.state-label { font-weight: 600; fill: #1d2433; }
  .state[data-active="true"] > rect { fill: #e5f0ff; stroke: #2f6fed; stroke-width: 2.5; }
  .state[data-active="true"] > text.state-label { fill: #1448b8; }
  .edge path { fill: none; stroke: #9aa3b5; stroke-width: 1.2; }
  .edge text { font-size: 12px; fill: #4a5263; paint-order: stroke; stroke: #fff; stroke-width: 4px; }
  .empty { color: #8a93a6; padding: 10px; }
  ul, ol { list-style: none; margin: 0; padding: 0; }
  .actor, .event { padding: 4px 10px; border-bottom: 1px solid #f0f1f4; cursor: pointer; display: flex; gap: 8px; }
  .actor:hover, .event:hover { background: #f3f6fb; }
  .actor[aria-selected="true"], .event[aria-selected="true"] { background: #e5f0ff; }
  .actor .name, .event .type { font-weight: 600; }
  .actor .state-name { margin-left: auto; font-family: ui-monospace, monospace; }
  .actor[data-status="done"] { color: #5b6475; }
  .actor[data-status="stopped"], .actor[data-status="error"] { color: #a0a7b4; text-decoration: line-through; }
  .actor[data-status="error"] .state-name { color: #c0392b; }
  .actor.child { padding-left: calc(10px + 14px * var(--depth, 1)); }
  .actor.internal { font-size: 12px; }
  .actor .internal-count { color: #8a93a6; font-size: 12px; }
  .event .seq { color: #8a93a6; width: 3em; text-align: right; }
  .event .actor-id { color: #5b6475; font-family: ui-monospace, monospace; }
  header button { font: inherit; padding: 1px 8px; }
  #recording-error { color: #ff9b9b; }
  .recording-entry { padding: 4px 10px; border-bottom: 1px solid #f0f1f4; display: flex; gap: 8px; }
  .recording-entry .kind { font-weight: 600; white-space: nowrap; }
  pre { margin: 0; padding: 10px; font: 12px/1.45 ui-monospace, monospace; white-space: pre-wrap; word-break: break-word; }
</style>
</head>
<body>
<header>
  <h1>agentchart inspector</h1>
  <label>system <select data-testid="system-select" id="system-select"></select></label>
  <span id="connection" data-testid="connection" data-state="connecting">connecting…</span>
  <label>recording <input type="file" accept=".jsonl" id="recording-file" data-testid="recording-file"></label>
  <span id="recording-bar" hidden>
    <button type="button" id="step-back" data-testid="step-back" title="previous step">◀</button>
    <span id="step-label" data-testid="step-label"></span>
    <button type="button" id="step-forward" data-testid="step-forward" title="next step">▶</button>
    <button type="button" id="recording-close" data-testid="recording-close" title="back to the live view">live</button>
  </span>
  <span id="recording-error" data-testid="recording-error"></span>
</header>
<main>
  <section id="diagram-panel"><h2><span id="diagram-title">Machine</span><span class="tools">
    <button type="button" id="zoom-out" data-testid="zoom-out" title="zoom out">−</button>
    <button type="button" id="zoom-in" data-testid="zoom-in" title="zoom in">+</button>
    <button type="button" id="zoom-fit" data-testid="zoom-fit" title="readable size, as large as fits">fit</button>
    <button type="button" id="zoom-all" data-testid="zoom-all" title="the whole diagram">all</button>
  </span></h2><div id="diagram" data-testid="diagram"></div></section>
  <section id="actors-panel"><h2>Actors<span class="tools"><label><input type="checkbox" id="show-internal"
    data-testid="show-internal"> internal</label></span></h2><ul id="actor-list" data-testid="actor-list"></ul></section>
  <section id="events-panel"><h2>Events (newest first)</h2><ol id="event-log" data-testid="event-log"></ol></section>
  <section id="context-panel"><h2 id="selection-title" data-testid="selection-title">Snapshot</h2>
    <pre id="context-view" data-testid="context-view">Click an actor or an event.</pre></section>
</main>
<script type="module" src="/assets/main.js"></script>
</body>
</html>
`;
