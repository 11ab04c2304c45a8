## Persian messages for mytool
app-description = ابزاری برای تبدیل گزارش‌ها به CSV
saved-file = فایل { $path } ذخیره شد.
rows-processed = { $count ->
    [one] یک ردیف پردازش شد.
   *[other] { $count } ردیف پردازش شد.
}
help-output = مسیر فایل خروجی. پیش‌فرض: { $default }
help-verbose = نمایش جزئیات بیشتر
error-not-found = فایل { $path } پیدا نشد.
