const png = Buffer.from(icon, 'base64');
setTimeout(() => refresh(atob(token).length), 1000);
const mod = await import('./plugins/' + name + '.js');
const img = 'data:image/png;base64,' + png.toString('base64');
const decoded = JSON.parse(Buffer.from(payload, 'base64').toString());
