$ErrorActionPreference = 'Stop'
$tools = 'git','node','python','code','wsl'
foreach ($t in $tools) {
  if (Get-Command $t -ErrorAction SilentlyContinue) { Write-Host "[ok] $t" }
  else { Write-Warning "[missing] $t" }
}
