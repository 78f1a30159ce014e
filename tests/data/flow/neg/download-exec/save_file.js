const fs = require('fs/promises');
const path = require('path');

async function downloadReport(url, dir) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`download failed: ${res.status}`);
  const text = await res.text();
  const out = path.join(dir, 'report.csv');
  await fs.writeFile(out, text, 'utf8');
  return out;
}

module.exports = { downloadReport };
