// Headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core:
// it plays the person who signs in and allows access.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CHROMIUM = process.env.E2E_CHROMIUM || '/usr/bin/chromium';
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

// launchBrowser starts Chromium with a fresh profile (its own
// --user-data-dir, via launchPersistentContext). close() ends Chromium and
// removes the profile; playwright also kills it if this process exits.
// locale is the browser's language (its Accept-Language): Brazilian
// Portuguese, the pages' default and their readers', unless a test asks
// for another (headless Chromium would otherwise say en-US).
export async function launchBrowser({ timeoutMs = 30_000, locale = 'pt-BR' } = {}) {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'kobana-e2e-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      timeout: timeoutMs,
      viewport: { width: 1000, height: 800 },
      locale,
    });
  } catch (err) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw new Error(`could not start Chromium at ${CHROMIUM}: ${err.message}`);
  }
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

async function pageSummary(page) {
  const text = await page.locator('body').innerText({ timeout: 2000 }).catch(() => '(no body text)');
  return `page ${page.url()} says: ${text.replace(/\s+/g, ' ').trim().slice(0, 600)}`;
}

// signInAndAllow opens the authorization URL, fills the sign-in page
// (inputs name="email" and name="password", button id="sign-in"), then
// allows access on the consent page (button id="allow"), and waits for the
// browser to land on callbackUrl. It saves a screenshot of each page to
// shots.signIn / shots.consent, and of the page it stopped at to
// shots.failure when something does not show up. expect.signIn and
// expect.consent, when given, are patterns the sign-in page's sentence
// (#lead) and the consent page's heading must match.
export async function signInAndAllow(context, authorizationUrl, { email, password, callbackUrl, shots, expect = {}, stepTimeoutMs = 15_000 }) {
  const page = await context.newPage();
  page.setDefaultTimeout(stepTimeoutMs);
  page.setDefaultNavigationTimeout(stepTimeoutMs);
  const fail = async (step, err) => {
    await page.screenshot({ path: shots.failure, fullPage: true }).catch(() => {});
    throw new Error(`browser: ${step}: ${err?.message?.split('\n')[0] ?? err}\n  ${await pageSummary(page)}\n  screenshot: ${shots.failure}`);
  };

  try {
    const res = await page.goto(String(authorizationUrl), { waitUntil: 'domcontentloaded' });
    if (res && res.status() >= 400) {
      return await fail(`the authorization endpoint answered HTTP ${res.status()}`, '');
    }
  } catch (err) { return await fail('opening the authorization URL', err); }

  try {
    await page.locator('input[name="email"]').waitFor({ state: 'visible' });
  } catch (err) { return await fail('no sign-in page (input name="email") after opening the authorization URL', err); }
  await page.screenshot({ path: shots.signIn, fullPage: true });
  if (expect.signIn) {
    const lead = await page.locator('#lead').innerText().catch(() => '(no #lead)');
    if (!expect.signIn.test(lead)) return await fail(`the sign-in page says ${JSON.stringify(lead)}, want ${expect.signIn}`, '');
  }
  try {
    await page.locator('input[name="email"]').fill(email);
    await page.locator('input[name="password"]').fill(password);
    await page.locator('#sign-in').click();
  } catch (err) { return await fail('filling the sign-in form (name="email", name="password", #sign-in)', err); }

  try {
    await page.locator('#allow').waitFor({ state: 'visible' });
  } catch (err) { return await fail('no consent page (button id="allow") after signing in — wrong credentials or a sign-in error?', err); }
  await page.screenshot({ path: shots.consent, fullPage: true });
  if (expect.consent) {
    const heading = await page.locator('h1').innerText().catch(() => '(no h1)');
    if (!expect.consent.test(heading)) return await fail(`the consent page's heading is ${JSON.stringify(heading)}, want ${expect.consent}`, '');
  }
  try {
    await Promise.all([
      page.waitForURL(u => String(u).startsWith(callbackUrl), { waitUntil: 'domcontentloaded' }),
      page.locator('#allow').click(),
    ]);
  } catch (err) { return await fail(`allowing access did not redirect to the redirect_uri ${callbackUrl}`, err); }
  const landedOn = page.url();
  await page.close().catch(() => {});
  return landedOn;
}
