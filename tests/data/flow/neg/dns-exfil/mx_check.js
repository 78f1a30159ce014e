const dns = require('dns').promises;

async function hasMailServer(email) {
  const domain = String(email).split('@')[1];
  if (!domain) return false;
  try {
    const records = await dns.resolveMx(domain);
    return records.length > 0;
  } catch {
    return false;
  }
}

module.exports = { hasMailServer };
