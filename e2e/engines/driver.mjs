// The browser engines other than Chromium, driven through WebDriver by selenium-webdriver:
// Firefox ESR through geckodriver (headless), and WebKitGTK's MiniBrowser through
// WebKitWebDriver (under Xvfb: run the tests with `xvfb-run`). Both browsers and drivers come
// from Debian and crates.io (scripts/install-web-deps.sh --test); SE_OFFLINE=true keeps
// Selenium Manager from downloading anything, so a missing driver is an error, not a download.
//
// `startEngine(name)` returns { driver, engine, version, problems }. `problems()` lists what
// the engine reported since the session started that a user would see in its console: page
// errors, console warnings and errors, CSP violations (Firefox: WebDriver BiDi, from every
// realm, workers included, and a script run before each page's own; WebKitGTK has no BiDi in
// Debian's build: the page's errors and CSP violations after load, and the console of a page
// load in `webkitConsoleOfLoad`).
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builder, By, until } from 'selenium-webdriver';
import { Origin } from 'selenium-webdriver/lib/input.js';
import firefox from 'selenium-webdriver/firefox.js';
import remote from 'selenium-webdriver/remote/index.js';
import LogInspector from 'selenium-webdriver/bidi/logInspector.js';
import ScriptManager from 'selenium-webdriver/bidi/scriptManager.js';

process.env.SE_OFFLINE = 'true';

export const ENGINES = ['firefox', 'webkit'];
export const MINIBROWSER = process.env.MINIBROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
export const GECKODRIVER = process.env.GECKODRIVER ?? join(process.env.HOME ?? '/root', '.cargo/bin/geckodriver');
export const WIDTH = 1440;
export const HEIGHT = 950;

// Recorders of the page's errors and CSP violations, installed in every page (Firefox: before
// its own scripts; WebKit: after each load, by `watchPage`).
const RECORDERS = `() => {
  if (window.__problems) return;
  window.__problems = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__problems.push('CSP ' + e.violatedDirective + ' ' + e.blockedURI));
  window.addEventListener('error', (e) => window.__problems.push('error ' + e.message));
  window.addEventListener('unhandledrejection', (e) => window.__problems.push('unhandled rejection ' + e.reason));
}`;

/** A session of `engine` ('firefox' or 'webkit'), its window WIDTH × HEIGHT. `downloads` is
 * where Firefox saves downloads. */
export async function startEngine(engine, { downloads = mkdtempSync(join(tmpdir(), `e2e-${engine}-dl-`)) } = {}) {
  const logged = [];
  let driver;
  if (engine === 'firefox') {
    const options = new firefox.Options()
      .setBinary('/usr/bin/firefox-esr')
      .addArguments('-headless')
      .enableBidi()
      .setPreference('browser.download.folderList', 2)
      .setPreference('browser.download.dir', downloads)
      .setPreference('browser.download.useDownloadDir', true)
      .setPreference('browser.download.always_ask_before_handling_new_types', false)
      .setPreference('browser.helperApps.neverAsk.saveToDisk', 'application/octet-stream')
      // Nothing in the background: no updates, experiments or telemetry.
      .setPreference('app.update.enabled', false)
      .setPreference('app.normandy.enabled', false)
      .setPreference('messaging-system.rsexperimentloader.enabled', false)
      .setPreference('datareporting.policy.dataSubmissionEnabled', false)
      .setPreference('browser.safebrowsing.update.enabled', false)
      .setPreference('network.captive-portal-service.enabled', false)
      .windowSize({ width: WIDTH, height: HEIGHT });
    const service = new firefox.ServiceBuilder(GECKODRIVER).setStdio(['ignore', 'ignore', 'ignore']);
    driver = await new Builder().forBrowser('firefox').setFirefoxOptions(options).setFirefoxService(service).build();
    const inspector = await LogInspector(driver);
    await inspector.onConsoleEntry((e) => {
      if (e.level === 'warn' || e.level === 'error') logged.push(`console.${e.level}: ${e.text}`);
    });
    await inspector.onJavascriptLog((e) => logged.push(`javascript ${e.level}: ${e.text}`));
    const scripts = await ScriptManager([], driver);
    await scripts.addPreloadScript(RECORDERS);
  } else if (engine === 'webkit') {
    const service = new remote.DriverService.Builder('/usr/bin/WebKitWebDriver')
      .setLoopback(true).setHostname('127.0.0.1').setStdio(['ignore', 'ignore', 'ignore']).build();
    const url = await service.start();
    driver = await new Builder().usingServer(url).withCapabilities({
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
    }).build();
    driver.__service = service;
    await driver.manage().window().setRect({ x: 0, y: 0, width: WIDTH, height: HEIGHT });
  } else {
    throw new Error(`unknown engine ${engine}: one of ${ENGINES.join(', ')}`);
  }
  const caps = await driver.getCapabilities();
  const version = `${caps.getBrowserName()} ${caps.getBrowserVersion()}`;
  return {
    driver,
    engine,
    version,
    downloads,
    /** What the engine reported since the session started (see the file's comment). */
    async problems() {
      let inPage = [];
      try {
        inPage = (await driver.executeScript('return window.__problems || []')) ?? [];
      } catch {
        // No page.
      }
      return [...logged, ...inPage];
    },
    async quit() {
      await driver.quit().catch(() => {});
      await driver.__service?.kill();
    },
  };
}

/** After a navigation: in WebKit, installs the recorders of errors and CSP violations (Firefox
 * has them before the page's scripts). */
export async function watchPage(session) {
  if (session.engine === 'webkit') await session.driver.executeScript(`(${RECORDERS})()`);
}

/** WebKitGTK's console while MiniBrowser (not automated: automation ignores its settings)
 * loads `url` and runs for `ms`: the lines it writes with
 * --enable-write-console-messages-to-stdout, which are what its Web Inspector's console shows
 * (CSP complaints, unused preloads, console calls). Needs a display (xvfb-run). */
export async function webkitConsoleOfLoad(url, ms) {
  const child = spawn(MINIBROWSER, ['--enable-write-console-messages-to-stdout=true', url], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  await new Promise((ok) => setTimeout(ok, ms));
  child.kill();
  await new Promise((ok) => child.once('exit', ok));
  return out.split('\n').filter((l) => l.startsWith('CONSOLE'));
}

export { By, Origin, until };
