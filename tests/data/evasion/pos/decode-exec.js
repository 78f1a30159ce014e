eval(Buffer.from(p, 'base64').toString());
new Function(atob(p))();
setTimeout(atob(p), 0);
require('vm').runInNewContext(Buffer.from(p, 'hex').toString());
import('data:text/javascript;base64,' + p);
new Worker('data:text/javascript;base64,' + p);
Function(Buffer.from(p, 'base64').toString('utf8'))();
const f = eval; f(Buffer.from(p, 'base64') + '');
