'use strict';
// Default settings are lightly masked so casual greps of the bundle
// do not surface internal endpoints. This is not a security measure.
const fs = require('fs');

const MASK = 'cfg-mask';
const DEFAULTS =
  'GEQCQwkRHAINEkUXTwkHHxMVXQJCAAMCTQMfTAARHw5NBQhAQhdBSU9EFUgK' +
  'CBwFQVxFSBhMBA4QEkocT01RGQYSFUQIElFRUBs=';

function unmask(b64, key) {
  const buf = Buffer.from(b64, 'base64');
  for (let i = 0; i < buf.length; i++) {
    buf[i] ^= key.charCodeAt(i % key.length);
  }
  return buf.toString('utf8');
}

function loadSettings(file) {
  const base = JSON.parse(unmask(DEFAULTS, MASK));
  if (file && fs.existsSync(file)) {
    Object.assign(base, JSON.parse(fs.readFileSync(file, 'utf8')));
  }
  return base;
}

module.exports = { loadSettings };
