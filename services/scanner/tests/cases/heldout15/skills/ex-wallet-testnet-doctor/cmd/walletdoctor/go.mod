module example.invalid/devtools/walletdoctor

go 1.22
