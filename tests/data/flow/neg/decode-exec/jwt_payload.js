function decodeJwtPayload(token) {
  const [, payload] = token.split('.');
  if (!payload) throw new Error('malformed token');
  const json = Buffer.from(payload, 'base64url').toString('utf8');
  return JSON.parse(json);
}

function isExpired(token, now = Date.now() / 1000) {
  const { exp } = decodeJwtPayload(token);
  return typeof exp === 'number' && exp < now;
}

module.exports = { decodeJwtPayload, isExpired };
