const config = {
  port: Number(process.env.PORT || 3000),
  apiBase: process.env.API_BASE_URL || 'https://api.example.com',
  logLevel: process.env.LOG_LEVEL || 'info',
};

async function loadFlags() {
  const res = await fetch(`${config.apiBase}/flags`, {
    headers: { 'X-Api-Key': process.env.FLAGS_API_KEY || '' },
  });
  if (!res.ok) throw new Error(`flags: ${res.status}`);
  return res.json();
}

module.exports = { config, loadFlags };
