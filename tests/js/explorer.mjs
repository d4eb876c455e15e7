// Drives the explorer page (zaro serve --http-port P --sql) in headless Chromium with
// playwright-core, as a user would, and prints what it saw as JSON for
// tests/python/test_explorer_browser.py to check against the store:
//   node explorer.mjs BASE_URL CHROMIUM OUT_DIR [TOKEN]
// walks the tree, opens t2m, reads the picture's pixels, moves the time slider and reads them
// again, hovers one pixel, runs a SQL query, downloads a selection as Arrow IPC and Parquet into OUT_DIR, and
// takes screenshots there. With TOKEN (a server with tokens), the token is typed into the page's
// form when it asks for it.
import { chromium } from "playwright-core";

const [base, executablePath, out, token] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath,
  // the flags /work machines need: no sandbox as root, no network beyond the page's server
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const result = { requests: [] };
try {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1300, height: 900 } });
  const page = await context.newPage();
  page.on("request", (r) => result.requests.push({ url: r.url(), auth: r.headers().authorization || null }));
  page.on("pageerror", (e) => { result.pageErrors = (result.pageErrors || []).concat(String(e)); });
  await page.goto(base + "/");
  if (token) {
    await page.locator("#token-form").waitFor({ state: "visible" });
    await page.fill("#token", token);
    await page.click("#token-form button");
  }
  await page.waitForSelector("body[data-ready=true]");
  result.tree = await page.$$eval("#tree a", (as) => as.map((a) => a.dataset.path));
  result.sqlButton = await page.isVisible("#show-sql");
  await page.waitForSelector("#tree .meta[data-bytes]"); // sizes on disk arrive after the tree
  result.sizes = await page.$$eval("#tree .meta[data-bytes]",
    (ms) => Object.fromEntries(ms.map((m) => [m.dataset.path, [Number(m.dataset.bytes), m.textContent]])));

  const pixels = async () => page.evaluate(async () => {
    const img = document.getElementById("image");
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.naturalWidth;
    c.height = img.naturalHeight;
    const ctx = c.getContext("2d");
    ctx.drawImage(img, 0, 0);
    return { width: c.width, height: c.height, rgba: Array.from(ctx.getImageData(0, 0, c.width, c.height).data),
      selection: img.dataset.selection };
  });
  await page.click('#tree a[data-path="t2m"]');
  await page.waitForFunction(() => document.getElementById("image").dataset.selection === "0, 0:73:1, 0:144:1");
  result.first = await pixels();
  result.info = await page.$$eval("#array-info tr", (rows) => rows.map((r) => [r.cells[0].textContent, r.cells[1].textContent]));
  result.sizeRow = await page.getAttribute("#array-info tr.size", "data-bytes");
  result.colorbar = [await page.textContent("#cb-min"), await page.textContent("#cb-units"), await page.textContent("#cb-max")];
  await page.locator("#slider-0").fill("7");
  await page.waitForFunction(() => document.getElementById("image").dataset.selection === "7, 0:73:1, 0:144:1");
  result.sliderLabel = await page.textContent("#slider-label-0");
  result.second = await pixels();

  // hover the centre of pixel (row 20, column 100)
  const box = await page.locator("#image").boundingBox();
  await page.mouse.move(box.x + (100.5 / 144) * box.width, box.y + (20.5 / 73) * box.height);
  await page.waitForFunction(() => document.getElementById("hover").dataset.index === "7,20,100");
  result.hover = { value: await page.getAttribute("#hover", "data-value"), text: await page.textContent("#hover") };
  await page.screenshot({ path: out + "/explorer-picture.png" });
  // a click: that pixel's series along time, as a line plot
  await page.mouse.click(box.x + (100.5 / 144) * box.width, box.y + (20.5 / 73) * box.height);
  await page.waitForSelector("#plot:not([hidden]) polyline");
  result.series = { title: await page.textContent("#plot-title"),
    points: (await page.getAttribute("#line polyline", "points")).trim().split(" ").length };

  await page.fill("#dl-slice", "7, 0:3, 0:4");
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#dl-arrow")]);
  await download.saveAs(out + "/download.arrows");
  result.download = download.suggestedFilename();
  const [parquet] = await Promise.all([page.waitForEvent("download"), page.click("#dl-parquet")]);
  await parquet.saveAs(out + "/download.parquet");
  result.parquet = parquet.suggestedFilename();

  await page.click("#show-sql");
  await page.fill("#sql-text", "SELECT lat, avg(t2m) AS mean_t2m FROM t2m GROUP BY lat ORDER BY lat LIMIT 5");
  await page.click("#sql-run");
  await page.waitForSelector("#sql-result table");
  result.sql = {
    head: await page.$$eval("#sql-result th", (ths) => ths.map((t) => t.textContent)),
    rows: await page.$$eval("#sql-result tbody tr", (trs) => trs.map((tr) => Array.from(tr.cells).map((c) => c.textContent))),
    time: await page.textContent("#sql-time"),
    chart: await page.isVisible("#sql-chart"),
  };
  await page.screenshot({ path: out + "/explorer-sql.png" });
  await page.fill("#sql-text", "SELEC 1");
  await page.click("#sql-run");
  await page.waitForSelector("#sql-error:not([hidden])");
  result.sqlError = await page.textContent("#sql-error");
  result.tokenAskedAgain = await page.isVisible("#token-form");
} finally {
  if (browser.isConnected()) await browser.close();
}
console.log(JSON.stringify(result));
