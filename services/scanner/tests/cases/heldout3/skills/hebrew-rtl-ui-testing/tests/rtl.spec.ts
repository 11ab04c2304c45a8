import { test, expect } from '@playwright/test';

test.use({ locale: 'he-IL' });

const samples = [
  'שלום עולם',
  'נותרו 3 ימים לתשלום',
  'ההזמנה שלך ב-\u2066Acme Store\u2069 אושרה',
  'האם לשמור את השינויים?\u200f',
];

test('checkout form renders RTL', async ({ page }) => {
  await page.goto('/checkout?lang=he');
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(page).toHaveScreenshot('checkout-he.png');
});

test('bidi samples keep punctuation at logical end', async ({ page }) => {
  await page.goto('/playground/text');
  for (const s of samples) {
    await page.fill('#sample', s);
    await expect(page.locator('#preview')).toHaveScreenshot();
  }
});

test('no physical left/right offsets', async ({ page }) => {
  await page.goto('/checkout?lang=he');
  const offenders = await page.$$eval('*', (els) =>
    els.filter((e) => {
      const cs = getComputedStyle(e);
      return e.getAttribute('style')?.match(/\b(margin|padding)-(left|right)\b/);
    }).map((e) => e.tagName));
  expect(offenders).toEqual([]);
});
