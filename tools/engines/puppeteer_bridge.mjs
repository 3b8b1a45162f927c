// A line-protocol bridge from Python tests to a browser driven by puppeteer-core
// (Firefox ESR over WebDriver BiDi; no geckodriver needed).
//
//   node tools/engines/puppeteer_bridge.mjs
//
// stdin:  one JSON command per line   {"id": 1, "cmd": "goto", "url": "http://…"}
// stdout: one JSON answer per line    {"id": 1, "ok": true, "value": …} or {"id": 1, "ok": false, "error": "…"}
//
// Commands
//   launch  {browser: "firefox", executablePath, width, height}   starts the browser and one page
//   goto    {url}                                                 navigates (waits for the load event)
//   eval    {js}              evaluates a JS expression in the page (awaits a promise), returns JSON
//   click   {selector}        a real click (pointer events) on the first match
//   close   {}                closes the browser; the bridge then exits
// Nothing here reaches the network: the tests serve the app on 127.0.0.1 or open file:// pages.
import readline from "node:readline";
import puppeteer from "puppeteer-core";

let browser = null;
let page = null;
const pageErrors = [];

function reply(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

const handlers = {
  async launch({ browser: name = "firefox", executablePath, width = 1280, height = 800 }) {
    browser = await puppeteer.launch({
      browser: name,
      executablePath,
      headless: true,
      defaultViewport: { width, height },
      // no telemetry, updates or remote settings: the tests must not leave the machine
      extraPrefsFirefox: {
        "app.update.enabled": false,
        "datareporting.policy.dataSubmissionEnabled": false,
        "toolkit.telemetry.enabled": false,
        "browser.safebrowsing.malware.enabled": false,
        "browser.safebrowsing.phishing.enabled": false,
        "network.captive-portal-service.enabled": false,
        "network.connectivity-service.enabled": false,
        "extensions.getAddons.cache.enabled": false,
        "services.settings.server": "http://127.0.0.1:9/",
      },
    });
    page = await browser.newPage();
    page.on("pageerror", (e) => pageErrors.push(String(e && e.message ? e.message : e)));
    return { version: await browser.version() };
  },
  async goto({ url, timeout = 120000 }) {
    await page.goto(url, { waitUntil: "load", timeout });
    return page.url();
  },
  async eval({ js }) {
    return await page.evaluate(js);
  },
  async click({ selector }) {
    await page.click(selector);
    return true;
  },
  async errors() {
    return pageErrors.splice(0);
  },
  async close() {
    if (browser) await browser.close();
    browser = null;
    return true;
  },
};

const rl = readline.createInterface({ input: process.stdin, terminal: false });
let chain = Promise.resolve();
rl.on("line", (line) => {
  chain = chain.then(async () => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch (e) {
      reply({ id: null, ok: false, error: `bad JSON: ${e.message}` });
      return;
    }
    const fn = handlers[msg.cmd];
    if (!fn) {
      reply({ id: msg.id, ok: false, error: `unknown command ${msg.cmd}` });
      return;
    }
    try {
      const value = await fn(msg);
      reply({ id: msg.id, ok: true, value: value === undefined ? null : value });
    } catch (e) {
      reply({ id: msg.id, ok: false, error: String(e && e.stack ? e.stack : e) });
    }
    if (msg.cmd === "close") process.exit(0);
  });
});
rl.on("close", async () => {
  await chain;
  if (browser) await browser.close();
  process.exit(0);
});
