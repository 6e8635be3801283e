import assert from 'node:assert/strict';
import request from 'supertest';

const RUNS = /^svc_background_runs_total\{loop="settings-refresh",outcome="ok"\} (\d+)$/m;

async function refreshRuns(url: string, auth: string): Promise<number> {
  const get = request(url).get('/api/v2/metrics/');
  const text = (await (auth ? get.set('Authorization', auth) : get).expect(200)).text;
  return Number(RUNS.exec(text)?.[1] ?? 0);
}

/**
 * Waits until the node at `url` has finished two settings refreshes since this call (each re-reads every
 * setting; the first may have begun before a change that was just written), so what a test reads next is what
 * the node read after the change: order, not seconds (issue 56). The period itself (0.4 s, SPEC §9's "within a
 * second") is asserted by test/background-work.e2e-spec.ts. `auth` '' reads the metrics anonymously. The bound only keeps a broken node from hanging.
 */
export async function settingsRefreshed(url: string, auth: string): Promise<void> {
  const start = await refreshRuns(url, auth);
  for (let i = 0; i < 1200; i++) {
    if ((await refreshRuns(url, auth)) >= start + 2) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`the settings refresh of ${url} did not run twice`);
}
