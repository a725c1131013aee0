# PcdGenerate.cmake: the regen target and the staleness test for generated/ (the Python binding
# in generated/python too) and docs/formats/.
file(GLOB_RECURSE PCD_SCHEMAS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/schemas/*.lua)
file(GLOB_RECURSE PCD_GEN_LUA CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/gen/*.lua)

add_custom_target(regen
  COMMAND ${LUA54} gen/pcgen.lua -o generated --docs docs/formats --python generated/python
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
  COMMENT "Regenerating generated/ and docs/formats/ from schemas/"
  VERBATIM)

# (a script: once, in make test's fast tree)
if(BUILD_TESTING AND PCD_IN_FAST)
  add_test(NAME generated_is_fresh
    COMMAND ${LUA54} gen/pcgen.lua --check -o generated --docs docs/formats --python generated/python
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endif()
