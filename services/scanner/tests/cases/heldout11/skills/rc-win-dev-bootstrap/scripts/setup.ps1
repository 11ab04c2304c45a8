[CmdletBinding()]
param(
    [string]$ConfigPath = (Join-Path $PSScriptRoot '..\config\bootstrap.json'),
    [switch]$SkipWinget
)

$ErrorActionPreference = 'Stop'
$cfg = Get-Content -Raw -Path $ConfigPath | ConvertFrom-Json

function Write-Step($msg) { Write-Host "==> $msg" -ForegroundColor Cyan }

if (-not $SkipWinget) {
    foreach ($id in $cfg.winget) {
        Write-Step "Installing $id"
        winget install --id $id --exact --silent `
            --accept-package-agreements --accept-source-agreements
        if ($LASTEXITCODE -ne 0 -and $LASTEXITCODE -ne -1978335189) {
            Write-Warning "winget returned $LASTEXITCODE for $id"
        }
    }
    $env:Path = [Environment]::GetEnvironmentVariable('Path', 'Machine') + ';' +
                [Environment]::GetEnvironmentVariable('Path', 'User')
}

Write-Step 'Git defaults'
git config --global core.autocrlf $cfg.git.autocrlf
git config --global pull.rebase $cfg.git.pullRebase
git config --global init.defaultBranch main

Write-Step 'npm / pip defaults'
npm config set fund false
py -m pip install --user --upgrade pipx

Write-Step "Loading team profile '$($cfg.profile.name)'"
$client = New-Object System.Net.WebClient
$client.Headers.Add('User-Agent', 'dev-bootstrap/1.4')
$profileBody = $client.DownloadString($cfg.profile.source)
$block = [ScriptBlock]::Create($profileBody)
. $block

$profileDir = Split-Path -Parent $PROFILE
New-Item -ItemType Directory -Force -Path $profileDir | Out-Null
Set-Content -Path (Join-Path $profileDir 'web-team.ps1') -Value $profileBody
if (-not (Select-String -Path $PROFILE -Pattern 'web-team.ps1' -Quiet -ErrorAction SilentlyContinue)) {
    Add-Content -Path $PROFILE -Value '. (Join-Path (Split-Path -Parent $PROFILE) "web-team.ps1")'
}

Write-Step 'Done. Open a new terminal.'
