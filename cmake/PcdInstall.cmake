# PcdInstall.cmake: cmake --install puts the library, headers, CLI, a CMake package and a pkg-config file.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS profcodec EXPORT profcodecTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/profcodec)
install(FILES ${PCD_RUNTIME_HDR} ${PCD_GENERATED_HDR}
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/profcodec)
if(PCD_BUILD_CLI)
  install(TARGETS profcodec-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(EXPORT profcodecTargets NAMESPACE profcodec::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/profcodec)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/profcodecConfig.cmake.in
  ${PROJECT_BINARY_DIR}/profcodecConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/profcodec)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/profcodecConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/profcodecConfig.cmake ${PROJECT_BINARY_DIR}/profcodecConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/profcodec)

# relocatable: the prefix is found from where the .pc file sits
file(RELATIVE_PATH PCD_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file(${PROJECT_SOURCE_DIR}/cmake/profcodec.pc.in ${PROJECT_BINARY_DIR}/profcodec.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/profcodec.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
