// record-har.mjs: a real recorder's HAR of traffic to a Plant Store server,
// for `plantcheck judge`'s tests. Chromium (driven by playwright-core,
// with recordHar) opens the server's origin and sends creates through
// fetch() in the page: valid ones, and ones the document refuses. Run it
// through scripts/record-har.sh, which starts the server.
//
//   node record-har.mjs BASE_URL TOKEN OUT.har
import { chromium } from 'playwright-core';

const [base, token, out] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const context = await browser.newContext({ recordHar: { path: out, content: 'embed' } });
const page = await context.newPage();
await page.goto(base + '/');
const results = await page.evaluate(async ({ token }) => {
  const send = async (body, headers) => {
    const r = await fetch('/plants', { method: 'POST', headers, body });
    return r.status + ' ' + (await r.text());
  };
  const json = { 'Content-Type': 'application/json', 'Authorization': 'Bearer ' + token };
  const out = [];
  out.push(await send(JSON.stringify({ id: 1, name: 'Rose', tag: 'flower' }), json));
  out.push(await send(JSON.stringify({ id: 2, name: 'Fern' }), json));
  out.push(await send(JSON.stringify({ id: 3, name: 'Ivy' }), { 'Content-Type': 'application/json' }));
  out.push(await send(JSON.stringify({ id: 4, name: 'Moss' }), { 'Content-Type': 'application/json', 'Authorization': 'Basic ' + btoa('u:' + token) }));
  out.push(await send(JSON.stringify({ id: '5', name: 'Oak' }), json));
  out.push(await send('{"id": 6, "name": ', json));
  out.push(await send(JSON.stringify({ id: 7, name: 'Yew' }), { 'Content-Type': 'text/plain', 'Authorization': 'Bearer ' + token }));
  out.push((await fetch('/plants', { headers: { 'Authorization': 'Bearer ' + token } })).status + ' GET');
  return out;
}, { token });
console.log(results.join('\n'));
await context.close();
await browser.close();
