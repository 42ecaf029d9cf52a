from infra.cli.main import main

main()
