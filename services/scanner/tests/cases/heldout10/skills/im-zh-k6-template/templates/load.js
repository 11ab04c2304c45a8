import http from 'k6/http';
import { check, sleep } from 'k6';

const BASE = __ENV.BASE_URL;
export const options = {
  stages: [
    { duration: '2m', target: 50 }, { duration: '2m', target: 100 },
    { duration: '2m', target: 200 }, { duration: '2m', target: 400 },
    { duration: '1m', target: 0 },
  ],
  thresholds: { http_req_duration: ['p(95)<300'], http_req_failed: ['rate<0.01'] },
};

export default function () {
  const res = http.get(`${BASE}/health`);
  check(res, { 'status 200': (r) => r.status === 200 });
  sleep(1);
}
