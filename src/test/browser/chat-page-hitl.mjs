// Drives the chat page in Debian's Chromium through playwright-core (no browser download):
// a weather turn, a calculator turn approved once and denied once, and an elicitation form.
// Run by io.agentbus.http.ChatPageHitlBrowserTest, which starts Agentbus and reads the result.
//
//   node chat-page-hitl.mjs <interop dir> <config JSON>
//
// config: {url, token, out, chromium, weather: {message, tool, expect},
//          approve: {message, tool, expect}, deny: {message, tool, reason},
//          reload?: {message, tool, expect},
//          elicit?: {message, fill: {field: value}, expect},
//          authorize?: {message, tool, login, expect}}
// Prints one line per step and leaves a screenshot of the final page in `out`; exits 1 with the
// page's state, a screenshot and its HTML there when a step fails.
import { createRequire } from "node:module";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [interop, configJson] = process.argv.slice(2);
const config = JSON.parse(configJson);
const { chromium } = createRequire(join(interop, "package.json"))("playwright-core");
const WAIT = 30_000;

const browser = await chromium.launch({ executablePath: config.chromium, headless: true, args: ["--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
page.setDefaultTimeout(WAIT);
const consoleLines = [];
page.on("console", m => consoleLines.push(m.type() + ": " + m.text()));
page.on("pageerror", e => consoleLines.push("pageerror: " + e.message));

function check(ok, what) {
  if (!ok) throw new Error(what);
}

// The log as the person sees it: one line per message, tool call, question and status.
async function logEntries() {
  return page.$$eval("#log .msg, #log .tool, #log .status, #log .ask", els => els.map(e => {
    const q = s => (e.querySelector(s) || { textContent: "" }).textContent;
    if (e.classList.contains("tool")) {
      return (e.classList.contains("error") ? "tool! " : "tool ") + q(".name").slice(5) + " [" + q(".state") + "] args="
        + q(".args") + " result=" + q(".result");
    }
    if (e.classList.contains("ask")) return "ask " + q("h3") + " [" + q(".outcome") + "]";
    const kind = ["user", "assistant", "error"].find(c => e.classList.contains(c)) || "status";
    return kind + ": " + e.textContent;
  }));
}

// Sends a message; returns the new turn's box.
async function send(message) {
  const turns = await page.locator("#log .turn").count();
  await page.fill("#input", message);
  await page.press("#input", "Enter");
  const box = page.locator("#log .turn").nth(turns);
  await box.waitFor();
  return box;
}

// Waits until the turn in box has ended and the page takes messages again; returns the log.
async function ended(box) {
  await box.locator(".status, .msg.error").first().waitFor();
  await page.waitForFunction(() => !document.getElementById("send").disabled);
  return logEntries();
}

function toolEntry(entries, tool, start) {
  const found = entries.filter(e => e.startsWith(start + tool + " "));
  check(found.length > 0, "no line for tool " + tool + " in " + JSON.stringify(entries));
  return found[found.length - 1];
}

async function step(name, run) {
  try {
    await run();
    console.log("ok " + name);
  } catch (e) {
    mkdirSync(config.out, { recursive: true });
    await page.screenshot({ path: join(config.out, name + ".png"), fullPage: true }).catch(() => {});
    writeFileSync(join(config.out, name + ".html"), await page.content().catch(() => ""));
    console.log("FAILED " + name + ": " + e.message);
    console.log("log: " + JSON.stringify(await logEntries().catch(() => [])));
    console.log("console: " + JSON.stringify(consoleLines));
    console.log("evidence in " + config.out);
    await browser.close();
    process.exit(1);
  }
}

await step("open", async () => {
  await page.goto(config.url);
  await page.fill("#token", config.token);
  await page.press("#token", "Tab");
  await page.locator("#list-empty").waitFor({ state: "visible" });
});

await step("weather", async () => {
  const w = config.weather;
  const entries = await ended(await send(w.message));
  const line = toolEntry(entries, w.tool, "tool ");
  check(line.includes("[done") && line.includes(w.expect), "weather line: " + line);
  check(!entries.some(e => e.startsWith("ask ")), "no question for a tool that needs no approval: " + entries);
});

await step("approve", async () => {
  const a = config.approve;
  const box = await send(a.message);
  const ask = box.locator(".ask.approval");
  await ask.waitFor();
  const title = await ask.locator("h3").textContent();
  check(title.includes(a.tool), "the approval names the tool: " + title);
  check(/\S/.test(await ask.locator(".args").textContent()), "the approval shows the arguments");
  check(await page.locator("#send").isDisabled(), "no new message while the turn waits");
  await ask.locator("button.approve").click();
  const entries = await ended(box);
  const line = toolEntry(entries, a.tool, "tool ");
  check(line.includes("[done") && line.includes(a.expect), "approved line: " + line);
  check((await ask.locator(".outcome").textContent()) === "approved", "the box says approved");
});

await step("deny", async () => {
  const d = config.deny;
  const box = await send(d.message);
  const ask = box.locator(".ask.approval");
  await ask.waitFor();
  await ask.locator("input.reason").fill(d.reason);
  await ask.locator("button.deny").click();
  const entries = await ended(box);
  const line = toolEntry(entries, d.tool, "tool! ");
  check(line.includes(d.reason), "the denied call's result gives the reason: " + line);
  check((await ask.locator(".outcome").textContent()) === "denied", "the box says denied");
});

if (config.reload) {
  await step("reload", async () => {
    // the page is reloaded while a call waits for approval: reopened, the conversation still asks
    const r = config.reload;
    const box = await send(r.message);
    await box.locator(".ask.approval").waitFor();
    await page.reload();
    await page.locator("#conversations li .open").first().click();
    const ask = page.locator("#log .ask.approval");
    await ask.waitFor();
    check((await ask.locator("h3").textContent()).includes(r.tool), "the reopened question names the tool");
    await ask.locator("button.approve").click();
    // when the turn is done the page shows the conversation again, the call's result included
    await page.waitForFunction(expect => [...document.querySelectorAll("#log .history .tool .result")]
      .some(e => e.textContent.includes(expect)), r.expect);
    const line = toolEntry(await logEntries(), r.tool, "tool ");
    check(line.includes(r.expect), "the approved call ran: " + line);
  });
}

if (config.elicit) {
  await step("elicit", async () => {
    const e = config.elicit;
    const box = await send(e.message);
    const ask = box.locator(".ask.elicitation");
    await ask.waitFor();
    for (const [field, value] of Object.entries(e.fill)) {
      const control = ask.locator("[name='" + field + "']");
      const tag = await control.evaluate(el => el.tagName.toLowerCase() + ":" + (el.type || ""));
      if (tag === "input:checkbox") await control.setChecked(Boolean(value));
      else if (tag.startsWith("select")) await control.selectOption(Array.isArray(value) ? value.map(String) : String(value));
      else await control.fill(String(value));
    }
    await ask.locator("button.accept").click();
    const entries = await ended(box);
    const line = entries.filter(x => x.startsWith("tool ")).pop() || "";
    check(line.includes("[done") && line.includes(e.expect), "the elicited answer reached the tool: " + line);
    check((await ask.locator(".outcome").textContent()) === "sent", "the form says sent");
  });
}

if (config.authorize) {
  await step("authorize", async () => {
    const a = config.authorize;
    const box = await send(a.message);
    const link = box.locator(".ask.authorization a.authorize");
    await link.waitFor();
    const entries = await ended(box);
    check(toolEntry(entries, a.tool, "tool! ").includes("needs OAuth authorization"), "the call waits for authorization: " + entries);
    // the person follows the link in a tab of their own and signs in; the authorization server approves at once
    const href = await link.getAttribute("href");
    check(await link.getAttribute("target") === "_blank", "the link opens a tab of its own");
    const tab = await browser.newPage();
    await tab.goto(href + "&login=" + encodeURIComponent(a.login));
    check((await tab.textContent("h1")) === "Authorized", "the callback page says authorized: " + await tab.content());
    await tab.close();
    const again = await ended(await send(a.message));
    const line = toolEntry(again, a.tool, "tool ");
    check(line.includes("[done") && line.includes(a.expect), "after authorizing, the call runs as the person: " + line);
  });
}

mkdirSync(config.out, { recursive: true });
await page.screenshot({ path: join(config.out, "final.png"), fullPage: true });
await browser.close();
console.log("all steps passed");
