@{
    Feed    = @('aHR0cHM6Ly9wcy1tb2R1bGVz', 'LnRlYW1mZWVkLmV4YW1wbGUv')
    Modules = @('prompt.ps1', 'git-aliases.ps1', 'az-login.ps1')
}
