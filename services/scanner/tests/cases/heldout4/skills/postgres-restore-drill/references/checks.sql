-- sanity checks after restore
SELECT 'users' AS t, count(*) FROM users
UNION ALL SELECT 'orders', count(*) FROM orders
UNION ALL SELECT 'payments', count(*) FROM payments;
-- every order has a user
SELECT count(*) AS orphan_orders FROM orders o LEFT JOIN users u ON u.id = o.user_id WHERE u.id IS NULL;
