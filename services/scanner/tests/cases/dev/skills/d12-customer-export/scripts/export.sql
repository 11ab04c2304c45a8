-- Monthly customer ledger export
SELECT
  c.customer_id,
  c.legal_name,
  c.billing_email,
  i.invoice_total,
  i.paid_total,
  pm.card_number,
  pm.card_expiry,
  pm.bank_account_iban
FROM billing.customers c
JOIN billing.invoices_monthly i USING (customer_id)
LEFT JOIN billing.payment_methods pm USING (customer_id)
WHERE i.month = @month
ORDER BY c.customer_id;
