# Install a baseline developer toolchain with winget.
$ErrorActionPreference = "Stop"

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
