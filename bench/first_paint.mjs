// first_paint.mjs: opens a profcodec HTML page in headless Chromium (Debian's, through
// playwright-core from tests/web) RUNS times and prints the median and best time from the start
// of the navigation to the first picture painted (the viewer's window.pcdViewer.firstPaint: the
// page parsed, its data decoded, totals summed and the flame graph drawn), in ms.
// usage: node first_paint.mjs PAGE.html [RUNS]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [page, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 5);
const pw = await import(pathToFileURL(path.join(here, '../tests/web/node_modules/playwright-core/index.mjs')).href);
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'pcd-bench-chromium-'));
const context = await pw.chromium.launchPersistentContext(profile, {
  executablePath: process.env.PCD_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
  viewport: { width: 1400, height: 800 },
});
const tab = context.pages()[0] || await context.newPage();
const times = [];
for (let i = 0; i < runs; i++) {
  await tab.goto('about:blank');
  await tab.goto(pathToFileURL(path.resolve(page)).href);
  await tab.waitForFunction(() => window.pcdViewer && window.pcdViewer.firstPaint != null, null, { timeout: 60000 });
  times.push(await tab.evaluate(() => window.pcdViewer.firstPaint));
}
await context.close();
fs.rmSync(profile, { recursive: true, force: true });
times.sort((a, b) => a - b);
console.log('median_ms=' + times[Math.floor((times.length - 1) / 2)].toFixed(0) + ' best_ms=' + times[0].toFixed(0) + ' runs=' + runs);
