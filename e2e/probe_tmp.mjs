import { openPage, startSite } from './support.mjs';
const site = await startSite();
const { page } = await openPage(site.browser, site.siteUrl);
const mem = async () => {
  const main = await page.evaluate(() => self.__wasm ? self.__wasm.memory.buffer.byteLength >> 20 : -1);
  const ws = [];
  for (const w of page.workers()) ws.push(await w.evaluate(() => self.__wasm ? self.__wasm.memory.buffer.byteLength >> 20 : -1).catch(() => -2));
  return { main, workers: ws };
};
console.log('idle', JSON.stringify(await mem()));
const chooser = page.waitForEvent('filechooser');
await page.getByRole('button', { name: 'Open file…' }).click();
await (await chooser).setFiles(process.argv[2]);
await page.locator('#tab-panel section.summary .timing[data-first-render-ms]').waitFor({ timeout: 600000 });
console.log('after', JSON.stringify(await mem()));
await site.browser.close(); site.server.close();
